; Solidity definitions: contracts, interfaces and libraries, their functions, modifiers,
; constructors, events, errors, structs, enums, state variables; and free functions.

(contract_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(library_declaration
  name: (identifier) @name) @definition.module

(function_definition
  name: (identifier) @name) @definition.function

(modifier_definition
  name: (identifier) @name) @definition.function

(constructor_definition
  "constructor" @name) @definition.constructor

(event_definition
  name: (identifier) @name) @definition.property

(error_declaration
  name: (identifier) @name) @definition.class

(struct_declaration
  name: (identifier) @name) @definition.struct

(struct_member
  name: (identifier) @name) @definition.field

(enum_declaration
  name: (identifier) @name) @definition.enum

(enum_value) @name @definition.enum_member

(state_variable_declaration
  name: (identifier) @name) @definition.field

(source_file
  (constant_variable_declaration name: (identifier) @name) @definition.constant)
