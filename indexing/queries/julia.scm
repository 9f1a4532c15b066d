; Julia definitions: modules, functions (long form, short form `f(x) = ...`, and methods of
; another module's function `Base.show(...)`, whose module is their scope), macros, structs,
; abstract types and constants. A docstring is the string right above (julia.toml).

(module_definition
  name: (identifier) @name) @definition.module

(function_definition
  (signature (call_expression . (identifier) @name))) @definition.function

(function_definition
  (signature
    (typed_expression (call_expression . (identifier) @name)))) @definition.function

(function_definition
  (signature
    (call_expression . (field_expression . (identifier) @scope (identifier) @name)))) @definition.function

(assignment
  . (call_expression . (identifier) @name)
  (operator) @_eq
  (#eq? @_eq "=")) @definition.function

(macro_definition
  (signature (call_expression . (identifier) @name))) @definition.macro

(struct_definition
  (type_head [(identifier) @name (binary_expression . (identifier) @name)
              (parametrized_type_expression . (identifier) @name)])) @definition.struct

(abstract_definition
  (type_head [(identifier) @name (binary_expression . (identifier) @name)])) @definition.interface

(const_statement
  (assignment . (identifier) @name)) @definition.constant
