; Make definitions: the targets of rules (a function each, as `make test` runs one; pattern
; rules like `%.o: %.c` and special targets like `.PHONY` are not), variables set with `=`,
; `:=`, `::=`, `?=` or `!=` (also after `export` or `override`, and in conditionals; not
; `+=`, which adds to one, nor a target-specific `test: X = 1`), and `define` blocks, which
; are called like functions (`$(call banner,...)`) or run as canned recipes.
;
; The grammar puts a conditional that follows a rule inside that rule's recipe (a recipe may
; hold conditionals), so a target defined in such a conditional is found inside that rule.

(rule
  (targets (word) @name)
  (#not-match? @name "^\\.[A-Z_]+$|%")) @definition.function

(variable_assignment
  !target_or_pattern
  name: (word) @name
  operator: _ @_op
  (#not-eq? @_op "+=")) @definition.variable

(define_directive
  name: (word) @name) @definition.function
