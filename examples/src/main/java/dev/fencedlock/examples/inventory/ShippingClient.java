package dev.fencedlock.examples.inventory;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FencedHttpRequests;
import dev.fencedlock.Lease;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * Calls the shipping service ({@link ShippingService}) from a sale: each call carries the sale's
 * lease's token in the {@code Fencing-Token} header, set by {@link FencedHttpRequests}, which refuses
 * to set it for a lease that is no longer valid. Counts every call's outcome in the tally it is given.
 * Thread-safe.
 */
final class ShippingClient {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    private final URI shipments;
    private final URI refusals;
    private final WorkerTally tally;

    ShippingClient(URI service, WorkerTally tally) {
        this.shipments = service.resolve("/shipments");
        this.refusals = service.resolve("/refusals");
        this.tally = tally;
    }

    /**
     * Ships {@code order} under {@code lease}: the sale's own lease, or a later one of the same lock
     * when the order is shipped again.
     */
    ShippingOutcome ship(Lease lease, OrderKey order) throws InterruptedException {
        HttpRequest request;
        try {
            request = request(lease, order);
        } catch (FenceRefusedException refused) {
            if (refused.reason() != FenceRefusedException.Reason.LEASE_NOT_VALID) {
                throw refused;
            }
            tally.count(ShippingOutcome.REFUSED_BEFORE_SENDING);
            return ShippingOutcome.REFUSED_BEFORE_SENDING;
        }
        ShippingOutcome outcome = send(request);
        if (outcome == ShippingOutcome.SHIPPED && lease.token() != order.token()) {
            tally.noteShippedUnderNewLease();
        }
        return outcome;
    }

    /**
     * The call that ships {@code order}, its header set from {@code lease} now.
     *
     * @throws FenceRefusedException if the lease is no longer valid
     */
    HttpRequest request(Lease lease, OrderKey order) {
        String body = "sku=" + URLEncoder.encode(order.sku(), StandardCharsets.UTF_8) + "&order=" + order.token();
        return FencedHttpRequests.withToken(HttpRequest.newBuilder(shipments), lease)
                .timeout(CALL_TIMEOUT)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    /**
     * Sends a call built by {@link #request} and counts its outcome.
     *
     * @throws IllegalStateException if the service answers anything but 200, 201 or 409
     */
    ShippingOutcome send(HttpRequest request) throws InterruptedException {
        HttpResponse<String> response = exchange(request);
        ShippingOutcome outcome = switch (response.statusCode()) {
            case 200, 201 -> ShippingOutcome.SHIPPED;
            case 409 -> ShippingOutcome.REFUSED_BY_RECEIVER;
            default ->
                throw new IllegalStateException(
                        "The shipping service answered " + response.statusCode() + ": " + response.body());
        };
        tally.count(outcome);
        return outcome;
    }

    /**
     * Checks that the service answers, so that a process that cannot reach it fails while it sets
     * up, and its first sale does not pay for opening the connection (a sale holds its lock while it
     * calls).
     *
     * @throws IllegalStateException or {@link UncheckedIOException} if it does not answer
     */
    void checkReachable() throws InterruptedException {
        lines(HttpRequest.newBuilder(refusals).GET().build());
    }

    /** The orders the service has shipped, as its database holds them now. */
    List<OrderKey> shipments() throws InterruptedException {
        return lines(HttpRequest.newBuilder(shipments).GET().build()).stream()
                .map(line -> line.split(" "))
                .map(fields -> new OrderKey(fields[0], Long.parseLong(fields[1])))
                .toList();
    }

    /** The stale calls the service refused: {@code <lock> <presented token> <newer token>} each. */
    List<String> refusals() throws InterruptedException {
        return lines(HttpRequest.newBuilder(refusals).GET().build());
    }

    private List<String> lines(HttpRequest request) throws InterruptedException {
        HttpResponse<String> response = exchange(request);
        if (response.statusCode() != 200) {
            throw new IllegalStateException("The shipping service answered " + response.statusCode() + " to "
                    + request.uri() + ": " + response.body());
        }
        return response.body().lines().filter(line -> !line.isBlank()).toList();
    }

    private HttpResponse<String> exchange(HttpRequest request) throws InterruptedException {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("Calling the shipping service at " + request.uri() + " failed", e);
        }
    }
}
