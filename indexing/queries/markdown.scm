; Markdown has no tags.scm; headings are its definitions (the extractor builds the outline).
(atx_heading) @heading
(setext_heading) @heading
