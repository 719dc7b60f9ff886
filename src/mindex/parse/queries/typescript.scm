; References in TypeScript: heritage clauses and interfaces.
; inherits: _js_calls
(extends_clause value: (identifier) @extends.name)
(implements_clause (type_identifier) @implements.name)
(extends_type_clause (type_identifier) @extends.name)
