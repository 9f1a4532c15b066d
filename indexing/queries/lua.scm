; Lua definitions: functions, global or local, and functions stored in tables (`function
; M.join`, `function M:method`, `M.size = function`), whose table is captured as their scope;
; and the module table a file builds (`local M = {}`).

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

; Functions in a table constructor: `{ __call = function (self) ... end }`.
(field
  name: (identifier) @name
  value: (function_definition)) @definition.function
