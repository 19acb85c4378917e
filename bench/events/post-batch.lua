-- bench/events/post-batch.lua: wrk script for bench/events.sh.
--
-- Every request is POST /v1/mobile/events with a batch envelope of BATCH valid "exposure" events for the
-- committed acme-market workspace. Every event id is unique across all requests, connections, threads and wrk
-- runs: "<tag>-<thread>-<random>-<counter>", where the tag comes from the command line (bench/events.sh
-- passes one per wrk run), the thread index and a random number are fixed per wrk thread in setup()/init(),
-- and the counter is per thread. wrk runs each thread's Lua in its own state and calls request() for all of
-- that thread's connections from that one state, so a per-thread counter cannot repeat.
--
-- Usage: wrk ... -s bench/events/post-batch.lua URL -- BATCH TAG
--
-- request() builds the body with a single table.concat over pieces prepared in init(): no JSON encoder, no
-- per-event string formatting, so wrk's one thread stays cheap next to the server.

wrk.method = "POST"
wrk.path = "/v1/mobile/events"
wrk.headers["Content-Type"] = "application/json"

-- setup() runs in the main Lua state, once per thread, before the thread starts.
local created = 0
function setup(thread)
    created = created + 1
    thread:set("thread_index", created)
end

local batch, pieces, counter = 50, {}, 0

function init(args)
    batch = tonumber(args[1]) or 50
    local tag = args[2] or tostring(os.time())
    local index = thread_index or 0
    -- The tag already differs per wrk run; the random part guards against a tag reused by hand.
    math.randomseed(os.time() + index * 7919)
    local prefix = string.format("%s-%d-%06x-", tag, index, math.random(0, 0xffffff))
    assert(#prefix + 12 <= 64, "event id prefix too long: " .. prefix)

    local head = '{"workspaceKey":"acme-market","installID":"bench-' .. prefix .. 'install",'
        .. '"sdk":{"platform":"ios","version":"1.4.0"},"app":{"id":"com.acme.market","version":"5.2.0"},'
        .. '"sentAt":1764478800123,"events":['
    local before_id = '{"eventID":"' .. prefix
    local after_id = '","type":"exposure","timestamp":1764478799001,"sessionID":"s-1","placement":"home_top",'
        .. '"screen":{"type":"home"},"visitID":"v-77","campaignID":"home-hero","variantID":"spring",'
        .. '"arm":"treatment"}'

    -- pieces = head, then per event: before_id, <counter>, after_id[,] ; the counters are filled per request.
    pieces[1] = head
    for i = 1, batch do
        local k = 1 + (i - 1) * 3
        pieces[k + 1] = before_id
        pieces[k + 2] = 0
        pieces[k + 3] = (i < batch) and (after_id .. ",") or (after_id .. "]}")
    end
end

function request()
    for i = 1, batch do
        counter = counter + 1
        pieces[3 + (i - 1) * 3] = counter
    end
    return wrk.format(nil, nil, nil, table.concat(pieces))
end
