package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TokenHintsTest {
    private static final LockTokens.Record RECORD = new LockTokens.Record(true, 42, 7, 3);

    @Test
    void remembersAndForgets() {
        TokenHints hints = new TokenHints();
        assertThat(hints.get("/a")).isNull();
        hints.remember("/a", RECORD);
        assertThat(hints.get("/a")).isEqualTo(RECORD);
        hints.forget("/a");
        assertThat(hints.get("/a")).isNull();
    }

    @Test
    void staysBoundedAndKeepsTheNewestEntry() {
        TokenHints hints = new TokenHints();
        for (int i = 0; i < 3 * TokenHints.MAX_ENTRIES; i++) {
            hints.remember("/lock-" + i, RECORD);
            assertThat(hints.get("/lock-" + i)).isEqualTo(RECORD);
        }
        assertThat(hints.size()).isEqualTo(TokenHints.MAX_ENTRIES);
    }
}
