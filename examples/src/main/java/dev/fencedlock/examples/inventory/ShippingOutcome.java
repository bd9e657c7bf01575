package dev.fencedlock.examples.inventory;

/** What became of one call to the shipping service. */
enum ShippingOutcome {
    /** The service recorded the shipment (201), or had recorded it before (200). */
    SHIPPED,
    /**
     * The lease was no longer valid when the call was about to be made, so nothing was sent: {@code
     * FencedHttpRequests} refused to set the token.
     */
    REFUSED_BEFORE_SENDING,
    /**
     * The service refused the call with 409: its fence row for the lock holds a newer token, so a
     * newer holder of the lock has called it already. Nothing was written there.
     */
    REFUSED_BY_RECEIVER
}
