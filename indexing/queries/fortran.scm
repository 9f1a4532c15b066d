; Fortran definitions: modules, submodules and programs; functions and subroutines
; (module procedures, internal ones, and those an interface block declares); derived types
; with their components and type-bound procedures (methods); named interfaces (generic
; procedures); enumerators; and the variables and constants (`parameter`s) of a module.

(module
  (module_statement (name) @name)) @definition.module

(submodule
  (submodule_statement (name) @name)) @definition.module

(program
  (program_statement (name) @name)) @definition.module

(function
  (function_statement name: (name) @name)) @definition.function

(subroutine
  (subroutine_statement name: (name) @name)) @definition.function

(module_procedure
  (module_procedure_statement name: (name) @name)) @definition.function

(derived_type_definition
  (derived_type_statement (type_name) @name)) @definition.struct

(derived_type_definition
  (variable_declaration
    declarator: [
      (identifier) @name
      (init_declarator left: (identifier) @name)
      (sized_declarator (identifier) @name)
    ]) @definition.field)

(derived_type_procedures
  (procedure_statement
    declarator: [
      (binding (binding_name (identifier) @name))
      (method_name) @name
    ]) @definition.method)

(interface
  (interface_statement (name) @name)) @definition.interface

(enumerator_statement
  declarator: [
    (identifier) @name
    (init_declarator left: (identifier) @name)
  ]) @definition.constant

(module
  (variable_declaration
    declarator: [
      (identifier) @name
      (init_declarator left: (identifier) @name)
      (sized_declarator (identifier) @name)
    ]) @definition.variable)

(module
  (variable_declaration
    (type_qualifier) @_qualifier
    declarator: [
      (identifier) @name
      (init_declarator left: (identifier) @name)
    ]) @definition.constant
  (#match? @_qualifier "(?i)^parameter$"))
