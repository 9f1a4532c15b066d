; Erlang definitions: the module, functions (their clauses are one definition, see
; erlang.toml), records, macros and types.

(module_attribute
  name: (atom) @name) @definition.module

(fun_decl
  clause: (function_clause name: (atom) @name)) @definition.function

(record_decl
  name: (atom) @name) @definition.struct

(pp_define
  lhs: (macro_lhs name: (_) @name args: (_))) @definition.macro

(pp_define
  lhs: (macro_lhs name: (_) @name !args)) @definition.constant

(type_alias
  name: (type_name name: (atom) @name)) @definition.type_parameter

(opaque
  name: (type_name name: (atom) @name)) @definition.type_parameter
