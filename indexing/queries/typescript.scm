; TypeScript beyond what it shares with JavaScript (ecmascript.scm, loaded first): types,
; interfaces, enums, namespaces, abstract classes and the signatures of declarations.

(type_alias_declaration
  name: (type_identifier) @name) @definition.type_parameter

(enum_declaration
  name: (identifier) @name) @definition.enum

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

(internal_module
  name: [(identifier) (nested_identifier)] @name) @definition.namespace

(module
  name: [(identifier) (nested_identifier)] @name) @definition.module

; `declare function f(): void;` and overload signatures.
(function_signature
  name: (identifier) @name) @definition.function

; Interface members and abstract methods, which have no body.
[
  (method_signature name: (_) @name)
  (abstract_method_signature name: (_) @name)
] @definition.method

; A class's constructor without a body: in a `declare class` (a `.d.ts`) and the overload
; signatures above an implementation. In an interface, `constructor()` is a plain method.
(class_body
  (method_signature
    name: (property_identifier) @name
    (#eq? @name "constructor")) @definition.constructor)

; Class fields bound to functions: `handle = () => {}`.
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method

; Class fields that hold values, and the properties an interface or a type alias's object type
; declares (`type Options = { retries: number }`), not those of any object type: in a
; parameter's type they would hang on the function around it. A field bound to a function is
; a method (above).
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.property

(interface_body
  (property_signature name: (property_identifier) @name) @definition.property)

(type_alias_declaration
  value: [
    (object_type
      (property_signature name: (property_identifier) @name) @definition.property)
    (intersection_type (object_type
      (property_signature name: (property_identifier) @name) @definition.property))
    (intersection_type (intersection_type (object_type
      (property_signature name: (property_identifier) @name) @definition.property)))
  ])

; Parameter properties (`constructor(private readonly store: Store)`): a parameter with an
; accessibility modifier or `readonly` is a property of the class (typescript.toml's
; `member_parameters`), not a local of the constructor.
[
  (required_parameter (accessibility_modifier) pattern: (identifier) @name)
  (optional_parameter (accessibility_modifier) pattern: (identifier) @name)
  (required_parameter "readonly" pattern: (identifier) @name)
  (optional_parameter "readonly" pattern: (identifier) @name)
] @definition.property
