; References in TSX: the TypeScript queries.
; inherits: typescript
