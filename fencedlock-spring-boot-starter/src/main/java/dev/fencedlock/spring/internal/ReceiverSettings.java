package dev.fencedlock.spring.internal;

import dev.fencedlock.FencingKey;
import dev.fencedlock.FencingTokenCheck;
import dev.fencedlock.spi.DurationFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * What a {@code @FencedBy} receiver reads from the {@code fencedlock.token.*} properties: the checks
 * of a presented token ({@link FencingTokenCheck}) and the bound of its fenced transactions.
 * Immutable and thread-safe.
 */
final class ReceiverSettings {
    /** How far a token's time part may lie ahead of this service's clock; {@code 10s} by default. */
    static final String MAX_AHEAD = "fencedlock.token.max-ahead";
    /** More keys whose signatures receivers accept, base64, one per id: {@code accepted-keys.<id>}. */
    static final String ACCEPTED_KEYS = "fencedlock.token.accepted-keys";
    /** Whether receivers refuse tokens not signed with an accepted key; {@code false} by default. */
    static final String REQUIRE_SIGNATURE = "fencedlock.token.require-signature";
    /** How long a receiver's fenced transaction waits for the fence row and may sit idle. */
    static final String RECEIVER_BOUND = "fencedlock.token.receiver-bound";

    /**
     * The keys read here, for the starter's check of unknown {@code fencedlock.*} names; the signing
     * key is the senders' ({@link TokenSettings}), which receivers accept too.
     */
    static final List<String> KEYS = List.of(
            MAX_AHEAD,
            ACCEPTED_KEYS,
            TokenSettings.SIGNING_KEY_ID,
            TokenSettings.SIGNING_KEY,
            REQUIRE_SIGNATURE,
            RECEIVER_BOUND);

    static final Duration DEFAULT_RECEIVER_BOUND = Duration.ofSeconds(30);

    private final FencingTokenCheck check;
    private final Duration bound;

    private ReceiverSettings(FencingTokenCheck check, Duration bound) {
        this.check = check;
        this.bound = bound;
    }

    /**
     * The settings in {@code environment}; every key optional.
     *
     * @throws IllegalArgumentException naming the key of a value that cannot be read, a key that is
     *     not base64 or shorter than 32 bytes, one of {@code signing-key-id} and {@code signing-key}
     *     without the other, two keys with one id, or {@code require-signature} without any key
     */
    static ReceiverSettings from(Environment environment) {
        Binder binder = Binder.get(environment);
        FencingTokenCheck.Builder check = FencingTokenCheck.builder();
        Optional<String> maxAhead = string(binder, MAX_AHEAD);
        if (maxAhead.isPresent()) {
            Duration ahead = DurationFormat.parse(MAX_AHEAD, maxAhead.get());
            if (ahead.isNegative()) {
                throw new IllegalArgumentException(MAX_AHEAD + " must not be negative, got " + maxAhead.get());
            }
            check.maxAhead(ahead);
        }
        List<FencingKey> keys = keys(environment, binder);
        try {
            check.acceptKeys(keys);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    e.getMessage() + " (" + TokenSettings.SIGNING_KEY_ID + " and the ids of " + ACCEPTED_KEYS
                            + ".<id>)",
                    e);
        }
        if (bool(binder, REQUIRE_SIGNATURE)) {
            if (keys.isEmpty()) {
                throw new IllegalArgumentException(REQUIRE_SIGNATURE + " is true, but no key is set to check"
                        + " signatures with: set " + TokenSettings.SIGNING_KEY_ID + " and " + TokenSettings.SIGNING_KEY
                        + ", or "
                        + ACCEPTED_KEYS + ".<id>");
            }
            check.requireSignature();
        }
        Duration bound = string(binder, RECEIVER_BOUND)
                .map(value -> DurationFormat.parsePositive(RECEIVER_BOUND, value))
                .orElse(DEFAULT_RECEIVER_BOUND);
        return new ReceiverSettings(check.build(), bound);
    }

    private static List<FencingKey> keys(Environment environment, Binder binder) {
        List<FencingKey> keys = new ArrayList<>();
        TokenSettings.signingKey(environment).ifPresent(keys::add);
        Map<String, String> accepted =
                new TreeMap<>(binder.bind(ACCEPTED_KEYS, Bindable.mapOf(String.class, String.class))
                        .orElseGet(Map::of));
        accepted.forEach((id, secret) -> keys.add(key(ACCEPTED_KEYS + "." + id, id, secret)));
        return keys;
    }

    private static FencingKey key(String key, String id, String base64Secret) {
        try {
            return FencingKey.ofBase64(id, base64Secret);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + ": " + e.getMessage(), e);
        }
    }

    private static Optional<String> string(Binder binder, String key) {
        return Optional.ofNullable(binder.bind(key, String.class).orElse(null))
                .map(String::strip)
                .filter(value -> !value.isEmpty());
    }

    private static boolean bool(Binder binder, String key) {
        Optional<String> value = string(binder, key);
        if (value.isEmpty()) {
            return false;
        }
        return switch (value.get().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(key + " must be true or false, got '" + value.get() + "'");
        };
    }

    FencingTokenCheck check() {
        return check;
    }

    Duration bound() {
        return bound;
    }
}
