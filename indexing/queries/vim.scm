; Vim script definitions: functions (named as called: `shop#Test`, `s:Lint`; a dict
; function `s:obj.Method` is a method of `s:obj`), user commands (`command! ShopTest ...`,
; run like a function), and the variables (`let`) and constants (`const`) a script sets at
; its top level (`g:loaded_shop`, `s:root`). Vim9's `def` is not read by the grammar.

(function_definition
  (function_declaration
    name: [(identifier) (scoped_identifier)] @name)) @definition.function

(function_definition
  (function_declaration
    name: (field_expression value: (_) @scope field: (identifier) @name))) @definition.method

(command_statement
  name: (command_name) @name) @definition.function

(script_file
  (let_statement
    . [(identifier) (scoped_identifier)] @name) @definition.variable)

(script_file
  (const_statement
    . [(identifier) (scoped_identifier)] @name) @definition.constant)
