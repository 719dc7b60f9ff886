; References in Haskell. A function applied (`f x`, `M.f x`), written between backticks
; (`x `elem` xs`) or on the function's side of `$`, `.`, `<$>`, `>>=` and their kin is a
; call, and so is a qualified name passed on (`map M.f xs`); a plain name passed on (`map norm
; xs`) is a call when the file defines it or imports it by name (refs.py), else a value (a
; parameter, most often). An `import` is read whole by
; mindex.parse.haskell: `qualified` and `as`, an import list, `hiding`. `class (Show a) =>
; Pretty a` extends Show; `instance Pretty Int` implements Pretty.
(apply function: (variable) @call.name)
(apply function: (qualified module: (module) @call.receiver id: (variable) @call.name))
(apply argument: (qualified module: (module) @call.receiver id: (variable) @call.name))
(apply argument: (variable) @call.name @_passed)
(infix operator: (infix_id (variable) @call.name))
(infix operator: (infix_id (qualified module: (module) @call.receiver id: (variable) @call.name)))
(infix left_operand: (variable) @call.name operator: (operator) @_op
  (#match? @_op "^([$]|[.]|<[$]>|<&>|>>=|>=>|<=<|<[*]>)$"))
(infix left_operand: (qualified module: (module) @call.receiver id: (variable) @call.name) operator: (operator) @_op
  (#match? @_op "^([$]|[.]|<[$]>|<&>|>>=|>=>|<=<|<[*]>)$"))
(infix right_operand: (variable) @call.name operator: (operator) @_op (#match? @_op "^([.]|=<<|>=>|<=<)$"))
(infix right_operand: (qualified module: (module) @call.receiver id: (variable) @call.name) operator: (operator) @_op
  (#match? @_op "^([.]|=<<|>=>|<=<)$"))
(import module: (module)) @import.tree
(class context: (context (apply constructor: (name) @extends.name)))
(class context: (context (name) @extends.name))
(instance name: (name) @implements.name)
