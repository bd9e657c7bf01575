package dev.fencedlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.sun.net.httpserver.HttpServer;
import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FencingHeader;
import dev.fencedlock.FencingKey;
import dev.fencedlock.FencingTokenCheck;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.internal.binding.ThreadLease;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.local.LocalLockFaults;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestTemplateAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/**
 * The {@code Fencing-Token} header on the calls of the {@code RestClient}, {@code RestTemplate} and
 * {@code WebClient} built from Spring Boot's auto-configured builders, sent to a real HTTP server on a
 * loopback port that records what it received; the leases come from the {@code local} backend.
 */
class FencingTokenSendersIT {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FencedLockAutoConfiguration.class,
                    AopAutoConfiguration.class,
                    HttpClientAutoConfiguration.class,
                    ImperativeHttpClientAutoConfiguration.class,
                    ReactiveHttpClientAutoConfiguration.class,
                    HttpMessageConvertersAutoConfiguration.class,
                    CodecsAutoConfiguration.class,
                    RestClientAutoConfiguration.class,
                    RestTemplateAutoConfiguration.class,
                    WebClientAutoConfiguration.class))
            .withPropertyValues("fencedlock.backend=local")
            .withBean(Caller.class);

    private RecordingServer server;

    @BeforeEach
    void startServer() throws IOException {
        server = new RecordingServer();
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    /** Runs work under a lease of a lock, as an application's {@code @Locked} method does. */
    public static class Caller {
        @Locked("#p0")
        public <T> T under(String lockName, Supplier<T> work) {
            return work.get();
        }
    }

    /** The three clients, each built once from its auto-configured builder, before any lock is taken. */
    enum Kind {
        REST_CLIENT {
            @Override
            Supplier<String> client(ApplicationContext context, URI uri) {
                RestClient client = context.getBean(RestClient.Builder.class).build();
                return () -> client.get().uri(uri).retrieve().body(String.class);
            }
        },
        REST_TEMPLATE {
            @Override
            Supplier<String> client(ApplicationContext context, URI uri) {
                RestTemplate template =
                        context.getBean(RestTemplateBuilder.class).build();
                return () -> template.getForObject(uri, String.class);
            }
        },
        WEB_CLIENT {
            @Override
            Supplier<String> client(ApplicationContext context, URI uri) {
                WebClient client = context.getBean(WebClient.Builder.class).build();
                return () -> client.get()
                        .uri(uri)
                        .retrieve()
                        .bodyToMono(String.class)
                        .block(CALL_TIMEOUT);
            }
        };

        /** A call of {@code uri} that returns the body. */
        abstract Supplier<String> client(ApplicationContext context, URI uri);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aCallInsideLockedCarriesTheLeasesToken(Kind kind) {
        runner.run(context -> {
            Supplier<String> call = kind.client(context, server.uri());
            String lock = "orders-" + kind;
            long token = context.getBean(Caller.class).under(lock, () -> {
                assertThat(call.get()).isEqualTo("ok");
                return CurrentLease.get().orElseThrow().token();
            });

            assertThat(FencingHeader.decode(server.onlyRequest().fencingToken()))
                    .containsExactly(Map.entry(lock, token));
        });
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void nestedLockedCallsCarryBothTokens(Kind kind) {
        runner.run(context -> {
            Supplier<String> call = kind.client(context, server.uri());
            Caller caller = context.getBean(Caller.class);
            Map<String, Long> tokens = new LinkedHashMap<>();
            String outer = "orders-" + kind;
            String inner = "lager-köln;\"=" + kind;
            caller.under(outer, () -> {
                tokens.put(outer, CurrentLease.get().orElseThrow().token());
                return caller.under(inner, () -> {
                    tokens.put(inner, CurrentLease.get().orElseThrow().token());
                    return call.get();
                });
            });

            assertThat(tokens).hasSize(2);
            assertThat(FencingHeader.decode(server.onlyRequest().fencingToken()))
                    .containsExactlyEntriesOf(tokens);
        });
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aCallOutsideAnyLockCarriesNoHeader(Kind kind) {
        runner.run(context -> {
            Supplier<String> call = kind.client(context, server.uri());
            // a locked call before it leaves nothing behind on the thread
            context.getBean(Caller.class).under("orders-" + kind, call);

            assertThat(call.get()).isEqualTo("ok");

            assertThat(server.requests()).hasSize(2);
            assertThat(server.requests().get(1).fencingToken()).isNull();
        });
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aCallWithAnExpiredLeaseIsRefusedAndNeverReachesTheServer(Kind kind) {
        runner.run(context -> {
            Supplier<String> call = kind.client(context, server.uri());
            String lock = "orders-" + kind;
            List<Long> token = new ArrayList<>();
            Throwable refused = context.getBean(Caller.class).under(lock, () -> {
                Lease lease = CurrentLease.get().orElseThrow();
                token.add(lease.token());
                assertThat(LocalLockFaults.expireLease(lock)).isTrue();
                assertThat(lease.isValid()).isFalse();
                return catchThrowable(call::get);
            });

            // the core refusal itself, not wrapped by the client
            assertThat(refused).isExactlyInstanceOf(FenceRefusedException.class);
            FenceRefusedException refusal = (FenceRefusedException) refused;
            assertThat(refusal.reason()).isEqualTo(FenceRefusedException.Reason.LEASE_NOT_VALID);
            assertThat(refusal.lockName()).isEqualTo(lock);
            assertThat(refusal.token()).isEqualTo(token.get(0));
            assertThat(refusal).hasMessageContaining("GET " + server.uri()).hasMessageContaining("nothing was sent");
            assertThat(server.requests()).isEmpty();
        });
    }

    @Test
    void aRefusedCallLeavesTheLockedMethodAsTheStartersRefusalAroundTheCoreOne() {
        runner.run(context -> {
            Supplier<String> call = Kind.REST_CLIENT.client(context, server.uri());
            String lock = "orders-escaping";

            Throwable failure =
                    catchThrowable(() -> context.getBean(Caller.class).under(lock, () -> {
                        LocalLockFaults.expireLease(lock);
                        return call.get();
                    }));

            assertThat(failure).isInstanceOf(FencedWriteRefusedException.class);
            assertThat(FenceRefusedException.findIn(failure))
                    .hasValueSatisfying(refusal ->
                            assertThat(refusal.reason()).isEqualTo(FenceRefusedException.Reason.LEASE_NOT_VALID));
            assertThat(server.requests()).isEmpty();
        });
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aLeaseBoundByCurrentLeaseThatRanOutRefusesTheCall(Kind kind) {
        runner.run(context -> {
            Supplier<String> call = kind.client(context, server.uri());
            Lease lease = context.getBean(LockClient.class)
                    .lock("orders-ran-out-" + kind)
                    .acquire(CALL_TIMEOUT, Duration.ofMillis(200));
            try (CurrentLease.Binding bound = CurrentLease.bind(lease)) {
                Await.until("the fixed 200 ms lease to run out", CALL_TIMEOUT, () -> !lease.isValid());

                assertThatThrownBy(call::get)
                        .isExactlyInstanceOf(FenceRefusedException.class)
                        .extracting(failure -> ((FenceRefusedException) failure).reason())
                        .isEqualTo(FenceRefusedException.Reason.LEASE_NOT_VALID);
            } finally {
                lease.close();
            }
            assertThat(server.requests()).isEmpty();
        });
    }

    @Test
    void aWebClientRequestStartedInsideLockedCarriesItsTokensWhenSubscribedOnAnotherThread() {
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            runner.run(context -> {
                WebClient client = context.getBean(WebClient.Builder.class).build();
                String lock = "orders-reactive";
                long token = context.getBean(Caller.class).under(lock, () -> {
                    Mono<String> request =
                            client.get().uri(server.uri()).retrieve().bodyToMono(String.class);
                    Future<String> response = other.submit(() -> request.block(CALL_TIMEOUT));
                    assertThat(get(response)).isEqualTo("ok");
                    return CurrentLease.get().orElseThrow().token();
                });

                assertThat(FencingHeader.decode(server.onlyRequest().fencingToken()))
                        .containsExactly(Map.entry(lock, token));
            });
        } finally {
            other.shutdownNow();
        }
    }

    @Test
    void aWebClientRequestStartedInsideLockedAndSubscribedAfterTheLeaseEndedIsRefused() {
        runner.run(context -> {
            WebClient client = context.getBean(WebClient.Builder.class).build();
            Mono<String> request = context.getBean(Caller.class)
                    .under(
                            "orders-late",
                            () -> client.get().uri(server.uri()).retrieve().bodyToMono(String.class));

            // the lease was released when the locked call returned
            assertThatThrownBy(() -> request.block(CALL_TIMEOUT))
                    .isExactlyInstanceOf(FenceRefusedException.class)
                    .extracting(failure -> ((FenceRefusedException) failure).lockName())
                    .isEqualTo("orders-late");
            assertThat(server.requests()).isEmpty();
        });
    }

    @Test
    void aWebClientRequestStartedOutsideAnyLockCarriesNoHeaderWhereverItIsSubscribed() {
        runner.run(context -> {
            WebClient client = context.getBean(WebClient.Builder.class).build();
            Mono<String> request = client.get().uri(server.uri()).retrieve().bodyToMono(String.class);

            context.getBean(Caller.class).under("orders-subscribed-inside", () -> request.block(CALL_TIMEOUT));

            assertThat(server.onlyRequest().fencingToken()).isNull();
        });
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void withASigningKeyTheHeaderIsSignedAndVerifiesWithThatKeyOnly(Kind kind) {
        runner.withPropertyValues(
                        "fencedlock.token.signing-key-id=2026-11",
                        "fencedlock.token.signing-key=" + Base64.getEncoder().encodeToString(SECRET))
                .run(context -> {
                    Supplier<String> call = kind.client(context, server.uri());
                    String lock = "orders-signed-" + kind;
                    long token = context.getBean(Caller.class).under(lock, () -> {
                        call.get();
                        return CurrentLease.get().orElseThrow().token();
                    });
                    String header = server.onlyRequest().fencingToken();

                    FencingTokenCheck requiringTheKey = FencingTokenCheck.builder()
                            .acceptKeys(FencingKey.of("2026-11", SECRET))
                            .requireSignature()
                            .build();
                    assertThat(requiringTheKey.tokenFor(lock, header)).isEqualTo(token);

                    byte[] otherSecret = SECRET.clone();
                    otherSecret[0] ^= 1;
                    FencingTokenCheck requiringAnotherSecret = FencingTokenCheck.builder()
                            .acceptKeys(FencingKey.of("2026-11", otherSecret))
                            .requireSignature()
                            .build();
                    assertThatThrownBy(() -> requiringAnotherSecret.tokenFor(lock, header))
                            .isInstanceOfSatisfying(
                                    FenceRefusedException.class,
                                    refusal -> assertThat(refusal.reason())
                                            .isEqualTo(FenceRefusedException.Reason.TOKEN_NOT_TRUSTED));
                });
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void propagateFalseSendsNoHeader(Kind kind) {
        runner.withPropertyValues("fencedlock.token.propagate=false").run(context -> {
            assertThat(context)
                    .doesNotHaveBean("fencedLockRestClientToken")
                    .doesNotHaveBean("fencedLockRestTemplateToken")
                    .doesNotHaveBean("fencedLockWebClientToken");
            Supplier<String> call = kind.client(context, server.uri());

            context.getBean(Caller.class).under("orders-quiet-" + kind, call);

            assertThat(server.onlyRequest().fencingToken()).isNull();
        });
    }

    @Test
    void aLeaseBoundTheWayShedLockAndSpringIntegrationBindTheirsIsCarried() {
        runner.run(context -> {
            Supplier<String> call = Kind.REST_CLIENT.client(context, server.uri());
            try (Lease lease = context.getBean(LockClient.class)
                            .lock("nightly-report")
                            .acquire(CALL_TIMEOUT);
                    ThreadLease bound = ThreadLease.bind(lease)) {
                call.get();

                assertThat(FencingHeader.decode(server.onlyRequest().fencingToken()))
                        .containsExactly(Map.entry("nightly-report", lease.token()));
            }
        });
    }

    @Test
    void aCallInsideFencedTransactionsCarriesItsLeasesToken() {
        runner.withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:http_send_tx;DB_CLOSE_DELAY=-1")
                .run(context -> {
                    Supplier<String> call = Kind.REST_TEMPLATE.client(context, server.uri());

                    long token = context.getBean(FencedTransactions.class).run("orders-tx", CALL_TIMEOUT, status -> {
                        call.get();
                        return CurrentLease.get().orElseThrow().token();
                    });

                    assertThat(FencingHeader.decode(server.onlyRequest().fencingToken()))
                            .containsExactly(Map.entry("orders-tx", token));
                });
    }

    @Test
    void badSenderSettingsFailTheStartNamingTheKey() {
        String secret = Base64.getEncoder().encodeToString(SECRET);
        assertStartFails(runner.withPropertyValues("fencedlock.token.signing-key-id=2026-11"), "signing-key");
        assertStartFails(runner.withPropertyValues("fencedlock.token.signing-key=" + secret), "signing-key-id");
        assertStartFails(
                runner.withPropertyValues(
                        "fencedlock.token.signing-key-id=2026-11",
                        "fencedlock.token.signing-key=" + Base64.getEncoder().encodeToString(new byte[16])),
                "at least 32 bytes");
        assertStartFails(runner.withPropertyValues("fencedlock.token.propagate=maybe"), "fencedlock.token.propagate");
    }

    private static void assertStartFails(ApplicationContextRunner failing, String named) {
        failing.run((AssertableApplicationContext context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(named)
                    .hasMessageNotContaining(Base64.getEncoder().encodeToString(SECRET));
        });
    }

    private static String get(Future<String> response) {
        try {
            return response.get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("the call on the other thread failed", e);
        }
    }

    /** One request as the server received it: its {@code Fencing-Token} lines joined, null when absent. */
    record Received(String fencingToken) {}

    /** An HTTP server on a loopback port that answers {@code ok} to everything and records each request. */
    static final class RecordingServer implements AutoCloseable {
        private final HttpServer http;
        private final List<Received> requests = new CopyOnWriteArrayList<>();

        RecordingServer() throws IOException {
            http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            http.createContext("/", exchange -> {
                List<String> lines = exchange.getRequestHeaders().get(FencingHeader.NAME);
                requests.add(new Received(lines == null ? null : String.join(", ", lines)));
                byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/plain");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
            });
            http.start();
        }

        URI uri() {
            return URI.create("http://" + InetAddress.getLoopbackAddress().getHostAddress() + ":"
                    + http.getAddress().getPort() + "/orders");
        }

        List<Received> requests() {
            return List.copyOf(requests);
        }

        Received onlyRequest() {
            assertThat(requests).hasSize(1);
            return requests.get(0);
        }

        @Override
        public void close() {
            http.stop(0);
        }
    }
}
