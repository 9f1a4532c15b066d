; Shell definitions: functions, and the variables a script sets at its top level (`readonly`
; ones are constants).

(function_definition
  name: (word) @name) @definition.function

(program
  (variable_assignment name: (variable_name) @name) @definition.variable)

(program
  (declaration_command
    (variable_assignment name: (variable_name) @name)) @definition.variable)

(program
  (declaration_command
    "readonly"
    (variable_assignment name: (variable_name) @name)) @definition.constant)
