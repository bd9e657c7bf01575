package dev.fencedlock.spring.internal;

import dev.fencedlock.FencingHeader;
import dev.fencedlock.Lease;
import java.util.List;
import java.util.Optional;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/**
 * Puts the {@value FencingHeader#NAME} header on the calls of a {@code WebClient}, for the leases
 * bound to the thread that started the request.
 *
 * <p>A {@code WebClient} call runs its filters when its publisher is subscribed, often on another
 * thread, so the leases are taken in two steps:
 *
 * <ol>
 *   <li>{@link #capture} is the builder's default-request consumer: the client calls it from
 *       {@code get()}, {@code post()}, {@code method(...)} and the like, on the calling thread,
 *       and it keeps the leases bound there in a request attribute;
 *   <li>{@link #filter}, run at each subscription (a retry included) just before the exchange,
 *       checks those leases and sets the header, or fails the call with {@link
 *       dev.fencedlock.FenceRefusedException} before the request is written when one is no longer
 *       valid.
 * </ol>
 *
 * <p>A request started outside any binding goes out unchanged, even when it is subscribed inside
 * one. The value replaces one the caller set. Thread-safe.
 */
final class FencingTokenExchangeFilter implements ExchangeFilterFunction {
    /** The request attribute holding the leases bound where the request was started. */
    static final String LEASES_ATTRIBUTE = FencingTokenExchangeFilter.class.getName() + ".leases";

    private final OutboundToken token;

    FencingTokenExchangeFilter(OutboundToken token) {
        this.token = token;
    }

    /** Keeps the leases bound to the calling thread in {@code request}'s attributes; none, nothing. */
    static void capture(WebClient.RequestHeadersSpec<?> request) {
        List<Lease> leases = OutboundToken.bound();
        if (!leases.isEmpty()) {
            request.attribute(LEASES_ATTRIBUTE, new Captured(leases));
        }
    }

    @Override
    public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
        Object captured = request.attribute(LEASES_ATTRIBUTE).orElse(null);
        if (!(captured instanceof Captured bound)) {
            return next.exchange(request);
        }
        Optional<String> value;
        try {
            value = token.valueFor(bound.leases(), request.method().name(), request.url());
        } catch (RuntimeException refused) {
            return Mono.error(refused);
        }
        if (value.isEmpty()) {
            return next.exchange(request);
        }
        return next.exchange(ClientRequest.from(request)
                .headers(headers -> headers.set(FencingHeader.NAME, value.get()))
                .build());
    }

    /** The leases bound where a request was started; a type of its own so no other attribute passes for it. */
    private record Captured(List<Lease> leases) {}
}
