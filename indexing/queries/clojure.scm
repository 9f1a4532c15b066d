; Clojure definitions are lists headed by a defining symbol: `defn`, `defmacro`, `def`,
; `defmulti`, `defmethod`, `defprotocol` (and its method signatures), `defrecord` and
; `deftype` (and their fields and inline methods), `ns`. A name is the symbol's `name`, past
; its metadata (`^:private`, `^String`). A docstring is the string right after the name
; (`(defn f "doc" [x] ...)`), only when something follows it: `(def x "text")` is a value.

(list_lit
  .
  (sym_lit name: (sym_name) @_kind)
  .
  (sym_lit name: (sym_name) @name)
  .
  ((str_lit) @doc . (_))?
  (#any-of? @_kind "defn" "defn-" "defmacro" "defmulti" "definline" "deftest")) @definition.function

(list_lit
  .
  (sym_lit name: (sym_name) @_kind)
  .
  (sym_lit name: (sym_name) @name)
  .
  ((str_lit) @doc . (_))?
  (#any-of? @_kind "def" "defonce")) @definition.variable

; `(defmethod area :circle [s] ...)`: one method of the multimethod `area`.
(list_lit
  .
  (sym_lit name: (sym_name) @_kind)
  .
  (sym_lit name: (sym_name) @name)
  (#eq? @_kind "defmethod")) @definition.method

(list_lit
  .
  (sym_lit name: (sym_name) @_kind)
  .
  (sym_lit name: (sym_name) @name)
  .
  (str_lit)? @doc
  (#eq? @_kind "ns")) @definition.module

; A protocol, and its method signatures `(area [s] "doc")`, methods of the protocol.
(list_lit
  .
  (sym_lit name: (sym_name) @_kind)
  .
  (sym_lit name: (sym_name) @name)
  .
  (str_lit)? @doc
  (#any-of? @_kind "defprotocol" "definterface")) @definition.interface

(list_lit
  .
  (sym_lit name: (sym_name) @_kind)
  .
  (sym_lit)
  (list_lit
    .
    (sym_lit name: (sym_name) @name)
    .
    (vec_lit)
    (str_lit) @doc
    .) @definition.function
  (#any-of? @_kind "defprotocol" "definterface"))

(list_lit
  .
  (sym_lit name: (sym_name) @_kind)
  .
  (sym_lit)
  (list_lit . (sym_lit name: (sym_name) @name) . (vec_lit)) @definition.function
  (#any-of? @_kind "defprotocol" "definterface"))

; Records and types, their fields `[owner lines]`, and the protocol methods they implement
; inline `(total [cart] ...)`.
(list_lit
  .
  (sym_lit name: (sym_name) @_kind)
  .
  (sym_lit name: (sym_name) @name)
  (#eq? @_kind "defrecord")) @definition.struct

(list_lit
  .
  (sym_lit name: (sym_name) @_kind)
  .
  (sym_lit name: (sym_name) @name)
  (#eq? @_kind "deftype")) @definition.class

(list_lit
  .
  (sym_lit name: (sym_name) @_kind)
  .
  (sym_lit)
  .
  (vec_lit (sym_lit name: (sym_name) @name) @definition.field)
  (#any-of? @_kind "defrecord" "deftype"))

(list_lit
  .
  (sym_lit name: (sym_name) @_kind)
  .
  (sym_lit)
  .
  (vec_lit)
  (list_lit . (sym_lit name: (sym_name) @name) . (vec_lit)) @definition.function
  (#any-of? @_kind "defrecord" "deftype"))

; A rich comment, `(comment (defn scratch [] ...))`, and a form after `#_` are read and thrown
; away: nothing in them is defined.
(list_lit
  .
  (sym_lit name: (sym_name) @_head)
  (#eq? @_head "comment")) @inert
(dis_expr) @inert
