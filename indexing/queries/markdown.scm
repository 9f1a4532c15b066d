; Markdown: headings are its definitions (the extractor builds the outline from them).
(atx_heading) @heading
(setext_heading) @heading
