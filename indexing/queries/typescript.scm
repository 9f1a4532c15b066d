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
  name: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.method
