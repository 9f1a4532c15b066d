; SQL definitions: what `CREATE` makes — tables (structs, their columns fields), views and
; materialized views (interfaces over tables), functions, types, triggers, schemas. Indexes
; are not definitions anyone looks up by name. A name qualified by its schema (`shop.items`)
; has the schema as its scope. The statement is the definition, so the comment above it
; documents it.

(statement
  (create_table
    (object_reference schema: (identifier)? @scope name: (identifier) @name))) @definition.struct

(column_definition
  name: (identifier) @name) @definition.field

(statement
  (create_view
    (object_reference schema: (identifier)? @scope name: (identifier) @name))) @definition.interface

(statement
  (create_materialized_view
    (object_reference schema: (identifier)? @scope name: (identifier) @name))) @definition.interface

(statement
  (create_function
    (object_reference schema: (identifier)? @scope name: (identifier) @name))) @definition.function

(statement
  (create_type
    (object_reference schema: (identifier)? @scope name: (identifier) @name))) @definition.type_parameter

(statement
  (create_trigger
    (object_reference schema: (identifier)? @scope name: (identifier) @name))) @definition.function

(statement
  (create_schema
    (identifier) @name)) @definition.namespace
