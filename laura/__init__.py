"""Laura: a terminal workspace that hosts a shell or an agent beside file panes."""

__version__ = "0.1.0"
