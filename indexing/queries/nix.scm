; Nix definitions: the bindings a reader looks up, those at the top of a file. They are the
; attributes of the set a file evaluates to, past the function, `let`, `with` and `assert`
; around it (`{ lib }: let ... in with lib; { ... }`, an overlay's `self: super: { ... }`),
; and the bindings of a `let` there; a binding to a function is a function. A binding of a
; path (`meta.description = ...`, a NixOS module's `services.nginx.enable = ...`) sets a
; value deeper down, and nested sets, a derivation's arguments and local `let`s are not
; looked at: a package set's thousands of attributes are its top level.

(source_code expression: [
  (attrset_expression
    (binding_set (binding attrpath: (attrpath . (identifier) @name .)) @definition.variable))
  (rec_attrset_expression
    (binding_set (binding attrpath: (attrpath . (identifier) @name .)) @definition.variable))
])

(source_code expression: (_ body: [
  (attrset_expression
    (binding_set (binding attrpath: (attrpath . (identifier) @name .)) @definition.variable))
  (rec_attrset_expression
    (binding_set (binding attrpath: (attrpath . (identifier) @name .)) @definition.variable))
]))

(source_code expression: (_ body: (_ body: [
  (attrset_expression
    (binding_set (binding attrpath: (attrpath . (identifier) @name .)) @definition.variable))
  (rec_attrset_expression
    (binding_set (binding attrpath: (attrpath . (identifier) @name .)) @definition.variable))
])))

(source_code expression: (_ body: (_ body: (_ body: [
  (attrset_expression
    (binding_set (binding attrpath: (attrpath . (identifier) @name .)) @definition.variable))
  (rec_attrset_expression
    (binding_set (binding attrpath: (attrpath . (identifier) @name .)) @definition.variable))
]))))

(source_code expression: (let_expression
  (binding_set (binding attrpath: (attrpath . (identifier) @name .)) @definition.variable)))

(source_code expression: (_ body: (let_expression
  (binding_set (binding attrpath: (attrpath . (identifier) @name .)) @definition.variable))))

(source_code expression: (_ body: (_ body: (let_expression
  (binding_set (binding attrpath: (attrpath . (identifier) @name .)) @definition.variable)))))

(source_code expression: [
  (attrset_expression
    (binding_set (binding attrpath: (attrpath . (identifier) @name .) expression: (function_expression)) @definition.function))
  (rec_attrset_expression
    (binding_set (binding attrpath: (attrpath . (identifier) @name .) expression: (function_expression)) @definition.function))
])

(source_code expression: (_ body: [
  (attrset_expression
    (binding_set (binding attrpath: (attrpath . (identifier) @name .) expression: (function_expression)) @definition.function))
  (rec_attrset_expression
    (binding_set (binding attrpath: (attrpath . (identifier) @name .) expression: (function_expression)) @definition.function))
]))

(source_code expression: (_ body: (_ body: [
  (attrset_expression
    (binding_set (binding attrpath: (attrpath . (identifier) @name .) expression: (function_expression)) @definition.function))
  (rec_attrset_expression
    (binding_set (binding attrpath: (attrpath . (identifier) @name .) expression: (function_expression)) @definition.function))
])))

(source_code expression: (_ body: (_ body: (_ body: [
  (attrset_expression
    (binding_set (binding attrpath: (attrpath . (identifier) @name .) expression: (function_expression)) @definition.function))
  (rec_attrset_expression
    (binding_set (binding attrpath: (attrpath . (identifier) @name .) expression: (function_expression)) @definition.function))
]))))

(source_code expression: (let_expression
  (binding_set (binding attrpath: (attrpath . (identifier) @name .) expression: (function_expression)) @definition.function)))

(source_code expression: (_ body: (let_expression
  (binding_set (binding attrpath: (attrpath . (identifier) @name .) expression: (function_expression)) @definition.function))))

(source_code expression: (_ body: (_ body: (let_expression
  (binding_set (binding attrpath: (attrpath . (identifier) @name .) expression: (function_expression)) @definition.function)))))
