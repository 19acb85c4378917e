-- bench/events/post-large.lua: wrk script for bench/events-offload.sh, the large batches.
--
-- Every request is POST /v1/mobile/events with one of COUNT gzip bodies made beforehand (DIR/1.json.gz to
-- DIR/COUNT.json.gz: batches of 500 events near the 512 KiB limit, each with event ids of its own), in turn, with
-- Content-Encoding: gzip as an SDK sends them; each connection waits PACE milliseconds after every answer. With
-- one wrk thread the bodies go out in order, so none repeats until COUNT requests have been sent.
--
-- Usage: wrk -t1 ... -s bench/events/post-large.lua URL -- DIR COUNT PACE

wrk.method = "POST"
wrk.path = "/v1/mobile/events"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Content-Encoding"] = "gzip"

local requests, next_body, pace = {}, 0, 0

function init(args)
    local directory, count = args[1], tonumber(args[2])
    pace = tonumber(args[3]) or 0
    for i = 1, count do
        local file = assert(io.open(directory .. "/" .. i .. ".json.gz", "rb"))
        requests[i] = wrk.format(nil, nil, nil, file:read("*a"))
        file:close()
    end
end

function request()
    next_body = next_body % #requests + 1
    return requests[next_body]
end

function delay()
    return pace
end
