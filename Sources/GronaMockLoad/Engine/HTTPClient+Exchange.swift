extension HTTPClient {
    /// Sends one request and runs the loop until it is answered: for the run's start and for `--verify`, where
    /// nothing else is in flight.
    package func exchange(_ request: ClientRequest) -> ClientCompletion {
        var result: ClientCompletion?
        submit(request)
        while result == nil {
            poll(timeoutMilliseconds: 50) { completion in result = completion }
        }
        return result ?? ClientCompletion(tag: request.tag, intendedStart: 0, finishedAt: 0, outcome: .failure(.closed))
    }
}
