"""The world the default model learns: emoji subjects moving over procedural settings, drawn from a seed.

`vocabulary` names what the model knows (its contract with the viewer page), `scenes` turns a prompt or a
seed into a Scene, `sprites` and `backdrops` draw its parts, `clips` composes the frames and `captions`
writes the many ways a viewer might ask for the same Scene.
"""
