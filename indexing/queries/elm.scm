; Elm definitions: the module, custom types (an enum of their variants), type aliases (a
; struct with its fields when the alias names a record), ports, and top-level functions and
; values: a type annotation and the declaration after it are one definition (elm.toml), named
; where the annotation is. Values inside `let` are not definitions.

(module_declaration
  name: (upper_case_qid) @name) @definition.module

(type_declaration
  name: (upper_case_identifier) @name) @definition.enum

(union_variant
  name: (upper_case_identifier) @name) @definition.enum_member

(type_alias_declaration
  name: (upper_case_identifier) @name) @definition.type_parameter

(type_alias_declaration
  name: (upper_case_identifier) @name
  typeExpression: (type_expression . (record_type) .)) @definition.struct

(type_alias_declaration
  typeExpression: (type_expression . (record_type
    (field_type name: (lower_case_identifier) @name) @definition.field) .))

(port_annotation
  name: (lower_case_identifier) @name) @definition.function

(file
  (type_annotation
    name: (lower_case_identifier) @name) @definition.function)

(file
  (value_declaration
    (function_declaration_left . (lower_case_identifier) @name)) @definition.function)
