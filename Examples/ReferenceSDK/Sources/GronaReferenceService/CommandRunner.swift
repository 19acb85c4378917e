import GronaReferenceSDK

/// Runs a command on a client and writes its result (service protocol, "Commands").
enum CommandRunner {
    static func run(_ command: Command, on client: GronaClient) async -> Result<JSON, ServiceError> {
        switch command {
        case .status:
            let status = await client.status()
            return .success([
                "configuration": [
                    "revision": status.revision.map(JSON.integer) ?? .null,
                    "source": .optionalString(status.source?.rawValue),
                ],
                "queuedEvents": .integer(Int64(status.queuedEvents)),
                "customerID": .optionalString(status.customerID), "online": .bool(status.online),
            ])
        case .advanceTime(let ms):
            await client.advanceTime(by: ms)
        case .visit(let screen, let basket):
            let visitID = await client.startVisit(screen: screen, basket: basket)
            return .success(["visitID": .string(visitID)])
        case .render(let slots):
            do {
                return .success(slotsJSON(try await client.render(slots)))
            } catch {
                return .failure(.refused(error.description))
            }
        case .onScreen:
            return .success(slotsJSON(await client.onScreen()))
        case .anchorVisible(let slot):
            await client.anchorVisible(slot)
        case .act(let slot, let result):
            do {
                try await client.act(slot, result: result)
            } catch {
                return .failure(.refused(error.description))
            }
        case .dismiss(let slot):
            do {
                try await client.dismiss(slot)
            } catch {
                return .failure(.refused(error.description))
            }
        case .identify(let customerID):
            await client.identify(customerID)
        case .offers:
            return .success(["offers": .array(await client.offers().map(offerJSON))])
        case .purchase(let orderID, let totalMinor, let currency, let productIDs, let treatments):
            await client.purchase(
                orderID: orderID, totalMinor: totalMinor, currency: currency, productIDs: productIDs,
                treatments: treatments)
        case .flush:
            await client.flush()
        case .background:
            await client.background()
        case .foreground:
            await client.foreground()
        case .network(let online):
            await client.setNetwork(online: online)
        }
        return .success([:])
    }

    private static func slotsJSON(_ slots: [RenderedSlot]) -> JSON {
        .object(
            JSONObject([
                "slots": .array(
                    slots.map { rendered in
                        [
                            "placement": .string(rendered.slot.placement.rawValue),
                            "key": .optionalString(rendered.slot.key),
                            "content": rendered.content.map(contentJSON) ?? .null,
                        ]
                    })
            ]))
    }

    private static func contentJSON(_ content: SlotContent) -> JSON {
        [
            "campaignID": .string(content.campaignID), "variantID": .string(content.variantID),
            "kind": .string(content.kind.rawValue), "type": .string(content.type),
            "isPreview": .bool(content.isPreview), "body": content.body,
        ]
    }

    private static func offerJSON(_ offer: GronaClient.Offer) -> JSON {
        [
            "campaignID": .string(offer.campaignID), "variantID": .string(offer.variantID),
            "placement": .string(offer.placement.rawValue),
            "treatment": ["type": .string(offer.treatmentType), "valueMilli": .integer(offer.treatmentValueMilli)],
            "grant": ["jti": .string(offer.grant.jti), "exp": .integer(offer.grant.expires)],
        ]
    }
}
