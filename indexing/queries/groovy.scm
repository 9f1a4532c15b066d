; Groovy definitions. The grammar reads Groovy as commands of units and blocks (`class Cart
; {` is a command of the unit `class` and a block whose first unit is `Cart`), so these
; patterns find declarations by their keywords and shapes: classes, interfaces, traits and
; enums; in their bodies methods (a unit calling a name, then a block, or no block in an
; interface), constructors (a method named like its class), fields and enum constants; and
; top-level functions (`def f(...) {`, `void main(...) {`). Gradle's `task name(...) {` and
; Jenkins' `stage('x') {` are calls, not functions.

; Types: the name is the unit after the keyword, or the first unit of the block when the
; block follows the keyword at once (`class Cart {`).
(command
  (unit (identifier) @_kw) .
  [
    (unit [(identifier) @name (generics_class . (identifier) @name)])
    (block . (unit [(identifier) @name (generics_class . (identifier) @name)]))
  ]
  (#eq? @_kw "class")) @definition.class

(command
  (unit (identifier) @_kw) .
  [
    (unit [(identifier) @name (generics_class . (identifier) @name)])
    (block . (unit [(identifier) @name (generics_class . (identifier) @name)]))
  ]
  (#any-of? @_kw "interface" "trait")) @definition.interface

(command
  (unit (identifier) @_kw) .
  [
    (unit (identifier) @name)
    (block . (unit (identifier) @name))
  ]
  (#eq? @_kw "enum")) @definition.enum

; Methods in a type's body: `int count() {`, `Cart(String owner) {` (a constructor), an
; interface's `String render()`, a Spock feature `def "adds a line"() {`.
(command
  (unit (identifier) @_kw)
  (block
    (command
      (block . (unit (func . (identifier) @name)))) @definition.method)
  (#any-of? @_kw "class" "interface" "trait" "enum"))

(command
  (unit (identifier) @_kw)
  (block
    (command
      (unit (func . (identifier) @name)) .) @definition.method)
  (#any-of? @_kw "interface" "trait"))

(command
  (unit (identifier) @_kw)
  (block
    (command
      (unit (identifier) @_def) .
      (block . (string) @name . (ERROR))) @definition.method)
  (#eq? @_kw "class")
  (#eq? @_def "def"))

; Fields: a type (or `def`, or a modifier) and a name, maybe a value: `String owner`,
; `private List<Map> lines = []`, `final int size = 3, other = 4`.
(command
  (unit (identifier) @_kw)
  (block
    (command
      (unit) .
      (unit (identifier) @name) .
      (operators)) @definition.field)
  (#any-of? @_kw "class" "trait" "enum"))

(command
  (unit (identifier) @_kw)
  (block
    (command
      (arg_spliter) .
      (unit (identifier) @name) .
      (operators)) @definition.field)
  (#any-of? @_kw "class" "trait" "enum"))

(command
  (unit (identifier) @_kw)
  (block
    (command
      (unit) .
      (unit (identifier) @name) .) @definition.field)
  (#any-of? @_kw "class" "trait" "enum"))

; Enum constants: the units of the first statement of an enum's body (`EUR, USD`,
; `EUR('€'), USD('$')`).
(command
  (unit (identifier) @_kw)
  (block
    . (unit) .
    (command
      [
        (unit (identifier) @name)
        (unit (func . (identifier) @name))
      ] @definition.enum_member))
  (#eq? @_kw "enum"))

; Top-level functions: `def total(lines) {`, `static void main(String[] args) {`.
(source_file
  (command
    . (unit (identifier) @_first)
    (block . (unit (func . (identifier) @name)))) @definition.function
  (#not-match? @_first "^(task|class|interface|trait|enum)$"))
