; Lua definitions: functions, global or local, and functions stored in tables (`function
; M.join`, `function M:method`, `M.size = function`), whose table is captured as their scope;
; and the module table or class a file builds (`local M = {}`, `local C = class()`).

(function_declaration
  name: (identifier) @name) @definition.function

(function_declaration
  name: (dot_index_expression table: (_) @scope field: (identifier) @name)) @definition.function

(function_declaration
  name: (method_index_expression table: (_) @scope method: (identifier) @name)) @definition.method

(assignment_statement
  (variable_list
    name: (dot_index_expression table: (_) @scope field: (identifier) @name))
  (expression_list value: (function_definition))) @definition.function

(assignment_statement
  (variable_list name: (identifier) @name)
  (expression_list value: (function_definition))) @definition.function

(chunk
  (variable_declaration
    (assignment_statement
      (variable_list name: (identifier) @name)
      (expression_list value: (table_constructor)))) @definition.variable)

; A top-level local made by a call that the file then defines functions on is that file's
; class or module (`local Parser = class({...})`, `local M = setmetatable({}, mt)`, then
; `function Parser:parse` or `function M.f`): its methods' container is a definition too.
(chunk
  (variable_declaration
    (assignment_statement
      (variable_list name: (identifier) @name)
      (expression_list value: (function_call)))) @definition.variable
  (function_declaration
    name: [
      (dot_index_expression table: (identifier) @_table)
      (method_index_expression table: (identifier) @_table)
    ])
  (#eq? @name @_table))

; Functions in a table constructor: `{ __call = function (self) ... end }`.
(field
  name: (identifier) @name
  value: (function_definition)) @definition.function
