package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeReplyTest {
    private static final RedisInstance INSTANCE = new RedisInstance("run", 0, 0);

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void describesRepliesForMessages() {
        assertThat(NodeReply.of(List.of(7L, bytes("5")), INSTANCE).describe()).isEqualTo("[7, \"5\"]");
        assertThat(NodeReply.of(bytes("OK"), INSTANCE).describe()).isEqualTo("\"OK\"");
        assertThat(NodeReply.of(1L, INSTANCE).describe()).isEqualTo("1");
        assertThat(NodeReply.of(null, INSTANCE).describe()).isEqualTo("nil");
        assertThat(NodeReply.of(List.of(), INSTANCE).describe()).isEqualTo("[]");
    }

    @Test
    void cutsLongRepliesShort() {
        assertThat(NodeReply.of(bytes("x".repeat(100)), INSTANCE).describe())
                .isEqualTo("\"" + "x".repeat(64) + "...\"");
        assertThat(NodeReply.of(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L), INSTANCE)
                        .describe())
                .isEqualTo("[1, 2, 3, 4, 5, 6, 7, 8, ...]");
    }
}
