; LaTeX definitions: the headings of a document (`\part` to `\subparagraph`, starred or not)
; as strings, named by their text, as Markdown's are; the commands and environments it
; defines (`\newcommand{\price}`, `\renewcommand\vec`, `\DeclareMathOperator`, `\def\shop`,
; `\newenvironment{note}`), named as written; and its labels (`\label{sec:totals}`, what
; `\ref` points to) as constants.

(part
  text: (curly_group (text) @name)) @definition.string

(chapter
  text: (curly_group (text) @name)) @definition.string

(section
  text: (curly_group (text) @name)) @definition.string

(subsection
  text: (curly_group (text) @name)) @definition.string

(subsubsection
  text: (curly_group (text) @name)) @definition.string

(paragraph
  text: (curly_group (text) @name)) @definition.string

(subparagraph
  text: (curly_group (text) @name)) @definition.string

(new_command_definition
  declaration: [
    (command_name) @name
    (curly_group_command_name command: (command_name) @name)
  ]) @definition.function

(old_command_definition
  declaration: (command_name) @name) @definition.function

(environment_definition
  name: (curly_group_text text: (text) @name)) @definition.function

(label_definition
  name: (curly_group_label label: (label) @name)) @definition.constant
