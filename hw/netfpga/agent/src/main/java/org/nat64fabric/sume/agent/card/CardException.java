package org.nat64fabric.sume.agent.card;

/** A table operation the card refused, with the reason its API gives. */
public final class CardException extends Exception {
    public enum Reason { FULL, EXISTS, NOT_FOUND, BAD_ADDRESS, BAD_WORD, NO_SUCH_TABLE, UNSUPPORTED }

    public final Reason reason;

    public CardException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }
}
