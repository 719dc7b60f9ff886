; References in Ruby. `X.new(...)` calls the class; `require 'a/b'` and `require_relative`
; are imports (refs.py marks the relative ones); `include M` and `extend M` are implements.
(call !receiver method: (identifier) @call.name
  (#not-match? @call.name "^(require|require_relative|include|extend|prepend|attr_reader|attr_writer|attr_accessor|private|protected|public|module_function)$"))
(call receiver: (_) @call.receiver method: (identifier) @call.name (#not-eq? @call.name "new"))
(call receiver: [(constant) (scope_resolution)] @call.name method: (identifier) @_new (#eq? @_new "new"))
(call !receiver method: (identifier) @_require arguments: (argument_list . (string (string_content) @import.module) .)
  (#match? @_require "^require(_relative)?$"))
(superclass [(constant) (scope_resolution)] @extends.name)
(call !receiver method: (identifier) @_include arguments: (argument_list [(constant) (scope_resolution)] @implements.name)
  (#match? @_include "^(include|extend|prepend)$"))
