; Elixir definitions are macro calls: `defmodule`, `defprotocol`, `def`, `defp`, `defmacro`,
; `defguard`, `defdelegate`, `defstruct`, `@type`. A function's name is the call (or bare
; name) that is the first argument, past a `when` guard.

(call
  target: (identifier) @_kind
  (arguments . (alias) @name)
  (#any-of? @_kind "defmodule" "defimpl")) @definition.module

(call
  target: (identifier) @_kind
  (arguments . (alias) @name)
  (#eq? @_kind "defprotocol")) @definition.interface

(call
  target: (identifier) @_kind
  (arguments . [
    (call target: (identifier) @name)
    (identifier) @name
    (binary_operator left: [(call target: (identifier) @name) (identifier) @name] operator: "when")
  ])
  (#any-of? @_kind "def" "defp" "defdelegate" "defn" "defnp")) @definition.function

(call
  target: (identifier) @_kind
  (arguments . [
    (call target: (identifier) @name)
    (identifier) @name
    (binary_operator left: [(call target: (identifier) @name) (identifier) @name] operator: "when")
  ])
  (#any-of? @_kind "defmacro" "defmacrop" "defguard" "defguardp")) @definition.macro

(unary_operator
  operand: (call
    target: (identifier) @_attr
    (arguments . (binary_operator
      left: [(call target: (identifier) @name) (identifier) @name]
      operator: "::")))
  (#any-of? @_attr "type" "typep" "opaque")) @definition.type_parameter
