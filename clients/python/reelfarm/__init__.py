"""reelfarm: the client of a ReelFarm render farm's HTTP API (docs/api.md, "Clients")."""
from .client import Client, ReelFarmError, content_id_of
from .models import BatchStatus, FarmError, FarmErrorCode, JobState, JobStatus, Problem, ShardCounts

__all__ = ["Client", "ReelFarmError", "content_id_of", "BatchStatus", "FarmError", "FarmErrorCode", "JobState", "JobStatus", "Problem",
           "ShardCounts"]
