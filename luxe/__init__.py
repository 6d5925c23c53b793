"""Luxe: a terminal coding agent whose whole surface is `luxe --rpc`."""

__version__ = "0.1.0"
