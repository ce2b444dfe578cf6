"""The world the default model learns: emoji subjects moving over procedural settings, drawn from a seed.

`vocabulary` names what the model knows (its contract with the viewer page) and finds its words in a prompt,
`captions` writes the many ways a viewer might ask for a Scene and reads a caption back into one, `sprites`
and `backdrops` draw a Scene's parts and `clips` composes its frames.
"""
