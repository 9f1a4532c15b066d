; R definitions: functions and values bound at the top level with `<-` or `=` (`<<-` too),
; and S4 classes, generics and methods declared with `setClass`, `setGeneric`, `setMethod`.

(program
  (binary_operator
    lhs: (identifier) @name
    operator: ["<-" "=" "<<-"]
    rhs: (function_definition)) @definition.function)

(program
  (binary_operator
    lhs: (identifier) @name
    operator: ["<-" "=" "<<-"]) @definition.variable)

(call
  function: (identifier) @_kind
  arguments: (arguments . (argument value: (string (string_content) @name)))
  (#eq? @_kind "setClass")) @definition.class

(call
  function: (identifier) @_kind
  arguments: (arguments . (argument value: (string (string_content) @name)))
  (#any-of? @_kind "setGeneric" "setMethod")) @definition.function
