-- Powerball drawings (issue 13): one row per draw day, created when first asked for, with the
-- grand prize the operator advertises for it and the cash that funds it (111-5-24(a)).
CREATE TABLE pb_draws (
    draw_date        date PRIMARY KEY,
    sales_close_at   timestamptz NOT NULL,
    sales_resume_at  timestamptz NOT NULL,
    draw_at          timestamptz NOT NULL,
    advertised_cents bigint CHECK (advertised_cents > 0),
    cash_value_cents bigint CHECK (cash_value_cents > 0),
    state            text NOT NULL DEFAULT 'scheduled' CHECK (state IN ('scheduled', 'closed', 'drawn', 'certified')),
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    CHECK (cash_value_cents IS NULL OR cash_value_cents <= advertised_cents),
    CHECK ((advertised_cents IS NULL) = (cash_value_cents IS NULL))
);
