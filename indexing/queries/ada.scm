; Ada definitions: packages (spec and body, a module each), functions and procedures (their
; declaration in a spec and their body), types (a record is a struct, a tagged record a
; class, an enumeration an enum with its literals, anything else, subtypes and private views
; too, a type_parameter), record components (fields), and the constants and variables of a
; package (not a subprogram's locals).

(package_declaration
  name: (_) @name) @definition.module

(package_body
  name: (_) @name) @definition.module

(subprogram_declaration
  [
    (function_specification name: (_) @name)
    (procedure_specification name: (_) @name)
  ]) @definition.function

(subprogram_body
  [
    (function_specification name: (_) @name)
    (procedure_specification name: (_) @name)
  ]) @definition.function

(full_type_declaration
  . (identifier) @name) @definition.type_parameter

; A tagged record before a plain one: of two patterns of one rank the earlier wins.
(full_type_declaration
  . (identifier) @name
  (record_type_definition "tagged")) @definition.class

(full_type_declaration
  . (identifier) @name
  (record_type_definition)) @definition.struct

(full_type_declaration
  . (identifier) @name
  (enumeration_type_definition)) @definition.enum

(enumeration_type_definition
  (identifier) @name @definition.enum_member)

(private_type_declaration
  . (identifier) @name) @definition.type_parameter

(subtype_declaration
  . (identifier) @name) @definition.type_parameter

(component_declaration
  . (identifier) @name) @definition.field

(package_declaration
  (number_declaration . (identifier) @name) @definition.constant)

(package_declaration
  (object_declaration name: (identifier) @name) @definition.variable)

(package_declaration
  (object_declaration name: (identifier) @name "constant") @definition.constant)

(package_body
  (non_empty_declarative_part
    (object_declaration name: (identifier) @name) @definition.variable))

(package_body
  (non_empty_declarative_part
    (object_declaration name: (identifier) @name "constant") @definition.constant))
