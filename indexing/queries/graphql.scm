; GraphQL definitions: types of every sort and their fields, enum values, input fields,
; scalars, unions, directives, and named operations and fragments. A definition's
; description string documents it (graphql.toml).

(object_type_definition
  (name) @name) @definition.class

(object_type_extension
  (name) @name) @definition.extension

(interface_type_definition
  (name) @name) @definition.interface

(enum_type_definition
  (name) @name) @definition.enum

(enum_value_definition
  (enum_value (name) @name)) @definition.enum_member

(input_object_type_definition
  (name) @name) @definition.struct

(union_type_definition
  (name) @name) @definition.type_parameter

(scalar_type_definition
  (name) @name) @definition.type_parameter

(field_definition
  (name) @name) @definition.field

(input_fields_definition
  (input_value_definition (name) @name) @definition.field)

(directive_definition
  (name) @name) @definition.function

(operation_definition
  (name) @name) @definition.function

(fragment_definition
  (fragment_name (name) @name)) @definition.function
