; inherits: c
; References in Objective-C, after C's. A message `[receiver selector:arg more:arg]` calls its
; selector's first part (as a method is named); `@interface Fetcher : Downloader <Proto>`
; extends Downloader and implements Proto; `#import "x.h"` is C's include.
(message_expression receiver: (_) @call.receiver . method: (identifier) @call.name)
(class_interface superclass: (identifier) @extends.name)
(class_interface (parameterized_arguments (type_name (type_identifier) @implements.name)))
(protocol_declaration (protocol_reference_list (identifier) @extends.name))
; What a name holds: `Downloader *d = ...`, a method's `(Downloader *)d` parameter.
(declaration type: (type_identifier) @type.name declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @type.var)))
(declaration type: (type_identifier) @type.name declarator: (pointer_declarator declarator: (identifier) @type.var))
(method_parameter (method_type (type_name (type_identifier) @type.name)) (identifier) @type.var)
