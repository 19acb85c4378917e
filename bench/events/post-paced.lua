-- bench/events/post-paced.lua: wrk script for bench/events-offload.sh, the small batches.
--
-- post-batch.lua's requests (BATCH unique "exposure" events per POST /v1/mobile/events), with each connection
-- waiting PACE milliseconds after every answer before its next request, so that the rate stays below what the
-- server can take and the latency measured is the server's, not a queue's.
--
-- Usage: wrk ... -s bench/events/post-paced.lua URL -- BATCH TAG PACE
--
-- Run from the repository root (bench/events-offload.sh does): post-batch.lua is loaded by that path.

dofile("bench/events/post-batch.lua")

local batch_init, pace = init, 0

function init(args)
    pace = tonumber(args[3]) or 0
    batch_init(args)
end

-- wrk looks for delay() as the script loads, so it is defined here; it reads the pace init() set.
function delay()
    return pace
end
