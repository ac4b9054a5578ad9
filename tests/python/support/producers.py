"""DLPack producers for tests that hand the package a prepared capsule."""


class Producer:
    """Hands out one prepared capsule (a real producer makes a new one per call)."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)
