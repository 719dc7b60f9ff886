; References in Lua. `local X = require("a.b")` is an import of module a.b as X; `X.f()` then
; calls the `f` that module's file defines on the table it returns (`function M.f()`).
(function_call name: (identifier) @call.name (#not-eq? @call.name "require"))
(function_call name: (dot_index_expression table: (_) @call.receiver field: (identifier) @call.name))
(function_call name: (method_index_expression table: (_) @call.receiver method: (identifier) @call.name))
(assignment_statement (variable_list . (identifier) @import.alias .)
  (expression_list . (function_call name: (identifier) @_require
                                    arguments: (arguments . (string content: (string_content) @import.module) .)) .)
  (#eq? @_require "require"))
