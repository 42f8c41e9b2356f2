"""What an operator watches: the metrics Prometheus scrapes (``metrics``: what processes count;
``readings``: what is read from Redis at each scrape; ``exposition``: the text served), errors
reported to Sentry (``error_reports``), JSON log lines (``json_logs``) and the request id that
follows a request into the work it causes (``request_ids``)."""
