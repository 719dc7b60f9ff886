; inherits: java
; References in Groovy: its grammar is Java's, and so are its calls, imports and supertypes
; (java.scm); `def x = new Foo()` (a declaration without a type) says what x holds, as Java's `var`.
(local_variable_declaration !type
  declarator: (variable_declarator name: (identifier) @type.var value: (object_creation_expression type: (_) @type.class)))
(local_variable_declaration !type
  declarator: (variable_declarator name: (identifier) @type.var value: (method_invocation) @type.new))
