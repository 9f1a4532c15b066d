; CMake definitions: functions and macros, the targets a project builds (`add_library`,
; `add_executable`, `add_custom_target`: what `target_link_libraries` and `make <target>`
; name, when written plainly rather than as `${name}`), and the settings a user sets
; (`option`, a `set(... CACHE ...)`). Other `set` calls are too many to be definitions.
; Command names are case-insensitive.

(function_def
  (function_command
    (argument_list . (argument (unquoted_argument) @name)))) @definition.function

(macro_def
  (macro_command
    (argument_list . (argument (unquoted_argument) @name)))) @definition.function

(normal_command
  (identifier) @_command
  (argument_list . (argument (unquoted_argument) @name))
  (#match? @_command "(?i)^(add_library|add_executable|add_custom_target)$")
  (#match? @name "^[^$]+$")) @definition.object

(normal_command
  (identifier) @_command
  (argument_list . (argument (unquoted_argument) @name))
  (#match? @_command "(?i)^option$")) @definition.variable

(normal_command
  (identifier) @_command
  (argument_list
    . (argument (unquoted_argument) @name)
    (argument (unquoted_argument) @_cache))
  (#match? @_command "(?i)^set$")
  (#eq? @_cache "CACHE")) @definition.variable
