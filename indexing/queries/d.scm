; D definitions: the module, classes, interfaces, structs and unions with their fields,
; methods and constructors (`this`), enums with their members, aliases, templates, and the
; functions, constants (`enum x = 1;`, `immutable`/`const` values) and variables of a
; module's top level. A function inside a type is a method; locals are not definitions.

(module_declaration
  (module_fqn) @name) @definition.module

(class_declaration
  (identifier) @name) @definition.class

(interface_declaration
  (identifier) @name) @definition.interface

(struct_declaration
  (identifier) @name) @definition.struct

(union_declaration
  (identifier) @name) @definition.struct

(enum_declaration
  (identifier) @name) @definition.enum

(enum_member
  (identifier) @name) @definition.enum_member

(alias_declaration
  (alias_initializer . (identifier) @name)) @definition.type_parameter

(template_declaration
  (identifier) @name) @definition.namespace

(function_declaration
  (identifier) @name) @definition.function

(constructor
  (this) @name) @definition.constructor

(aggregate_body
  (variable_declaration
    (declarator . (identifier) @name)) @definition.field)

(aggregate_body
  (manifest_constant
    (manifest_declarator . (identifier) @name)) @definition.constant)

; A module's own top level: its declarations follow the `module` line, inside `module_def`
; (in `source_file` when there is no `module` line).

(source_file
  (manifest_constant
    (manifest_declarator . (identifier) @name)) @definition.constant)

(source_file
  (variable_declaration
    (declarator . (identifier) @name)) @definition.variable)

(source_file
  (variable_declaration
    (type . (type_ctor) @_ctor)
    (declarator . (identifier) @name)) @definition.constant
  (#any-of? @_ctor "immutable" "const"))

(module_def
  (manifest_constant
    (manifest_declarator . (identifier) @name)) @definition.constant)

(module_def
  (variable_declaration
    (declarator . (identifier) @name)) @definition.variable)

(module_def
  (variable_declaration
    (type . (type_ctor) @_ctor)
    (declarator . (identifier) @name)) @definition.constant
  (#any-of? @_ctor "immutable" "const"))

; A `unittest` block is the module's own test, kept beside the code it tests; it is named by
; its keyword (`indexing.classify.in_test_module` reads it as a test).

(unittest_declaration
  (unittest) @name) @definition.function
