; Starlark (Bazel, Buck, Tilt) definitions: functions (macros and rule implementations),
; top-level bindings (UPPER_CASE names are constants), the rules, macros and providers a
; `.bzl` file makes (`my_rule = rule(...)` is called like a function, a provider is a struct),
; and the targets a BUILD or WORKSPACE file declares: a top-level call with a string `name`
; (`py_library(name = "cart", ...)`, `http_archive(name = "rules_python", ...)`).

(function_definition
  name: (identifier) @name) @definition.function

(module
  (expression_statement
    (assignment left: (identifier) @name) @definition.variable))

(module
  (expression_statement
    (assignment left: (identifier) @name) @definition.constant)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

(module
  (expression_statement
    (assignment
      left: (identifier) @name
      right: (call function: (identifier) @_maker)) @definition.function)
  (#any-of? @_maker "rule" "repository_rule" "macro" "symbolic_macro"))

(module
  (expression_statement
    (assignment
      left: (identifier) @name
      right: (call function: (identifier) @_maker)) @definition.struct)
  (#eq? @_maker "provider"))

(module
  (expression_statement
    (call
      arguments: (argument_list
        (keyword_argument
          name: (identifier) @_key
          value: (string (string_content) @name)))) @definition.object)
  (#eq? @_key "name"))
