; References in JavaScript.
; inherits: _js_calls
(class_heritage (identifier) @extends.name)
(class_heritage (member_expression property: (property_identifier) @extends.name))
