-- The proxy finds the imported session a captured call continues by its prompts, however old the
-- session is: user messages indexed by the start of their text (the full text is then compared).
CREATE INDEX messages_user_prompt ON messages (substr(content, 1, 120)) WHERE role = 'user';
