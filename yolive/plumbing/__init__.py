"""What every room of the project shares and none owns: every group name and event payload (events), every
Redis key (keys), the Redis client and the per-loop state (redis_client, loops), logs, heartbeats and
/healthz, and the metrics. Apps (voting, moderation, clips) and the product's other rooms import it; it
imports none of them."""
