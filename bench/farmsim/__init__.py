"""ReelFarm's capacity model: a simulation of a coordinator and W workers (docs/scale.md)."""
