package dev.fencedlock.spring.internal;

import dev.fencedlock.FencingHeader;
import dev.fencedlock.Lease;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.springframework.core.Ordered;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Puts the {@value FencingHeader#NAME} header on the calls of a {@code RestClient} or {@code
 * RestTemplate}, for the leases bound to the calling thread ({@link OutboundToken}); a call made
 * outside any binding goes out unchanged. Both clients run their interceptors on the calling
 * thread, just before the request is written, so the leases are read and checked there: a lease
 * that is no longer valid throws {@link dev.fencedlock.FenceRefusedException} before the request
 * exists, and neither client wraps it. The value replaces one the caller set. Ordered last, so that
 * retries by interceptors added before it check the lease again. Thread-safe.
 */
final class FencingTokenInterceptor implements ClientHttpRequestInterceptor, Ordered {
    private final OutboundToken token;

    FencingTokenInterceptor(OutboundToken token) {
        this.token = token;
    }

    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        List<Lease> leases = OutboundToken.bound();
        Optional<String> value = token.valueFor(leases, request.getMethod().name(), request.getURI());
        value.ifPresent(header -> request.getHeaders().set(FencingHeader.NAME, header));
        return execution.execute(request, body);
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
