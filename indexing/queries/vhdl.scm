; VHDL definitions: entities (a module each, with their ports as fields and generics as
; constants), architectures (an object named by its name, of the entity it implements:
; `counter.rtl`), components (an interface, with their ports), packages and package bodies
; (namespaces), functions and procedures (declared or with their body), types (a record is
; a struct with its elements as fields, an enumeration an enum with its literals, anything
; else, subtypes too, a type_parameter), constants, and signals (variables).

(entity_declaration
  name: (identifier) @name) @definition.module

(architecture_body
  name: (identifier) @name
  entity: (_) @scope) @definition.object

(component_declaration
  name: (identifier) @name) @definition.interface

(package_declaration
  name: (identifier) @name) @definition.namespace

(package_body
  package: (simple_name) @name) @definition.namespace

[
  (function_declaration designator: (identifier) @name)
  (function_body designator: (identifier) @name)
  (procedure_declaration designator: (identifier) @name)
  (procedure_body designator: (identifier) @name)
] @definition.function

(full_type_declaration
  name: (identifier) @name) @definition.type_parameter

(full_type_declaration
  name: (identifier) @name
  (record_type_definition)) @definition.struct

(full_type_declaration
  name: (identifier) @name
  (enumeration_type_definition)) @definition.enum

(enumeration_type_definition
  literal: (identifier) @name @definition.enum_member)

(subtype_declaration
  name: (identifier) @name) @definition.type_parameter

(element_declaration
  (identifier_list (identifier) @name)) @definition.field

(port_clause
  (signal_interface_declaration
    (identifier_list (identifier) @name)) @definition.field)

(generic_clause
  (constant_interface_declaration
    (identifier_list (identifier) @name)) @definition.constant)

(constant_declaration
  (identifier_list (identifier) @name)) @definition.constant

(signal_declaration
  (identifier_list (identifier) @name)) @definition.variable
